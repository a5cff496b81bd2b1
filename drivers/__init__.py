"""Transports: serial ports (pyserial) and USB devices (pyusb), with reconnect and timeouts."""
