"""Importers: one module per input format, each sniffing its format and converting it into a recording."""
