"""Virtual devices that speak the same bytes as the hardware, and the recorder and replayer."""
