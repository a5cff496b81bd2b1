"""The floor service: every table's messages, from the MQTT broker into PostgreSQL, and the pit
page. Not the table controller: it runs centrally, for all tables. See docs/floor.md."""
