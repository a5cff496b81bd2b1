"""The web and MQTT plumbing both the table and the floor use (issue 49): the broker and its
client, ports, systemd's notify, the checked reading of files, and the web's shared parts (the
origin gate, the security headers, Server-Sent Events, the icon and the pages' script of
words). It imports nothing of the project but ports' own helpers, so the floor loads none of
the table's daemon, display, drivers or devices."""
