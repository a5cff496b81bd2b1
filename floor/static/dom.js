// What the pit's pages share: an element made with its attributes and children, where text is
// always set as text (never markup), and an element by its id.
"use strict";
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value; else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child instanceof Node ? child : String(child ?? ""));
  return node;
}
const $ = (id) => document.getElementById(id);
