"""The run model every analysis reads: ``Run``, its lazily decoded parts, the commit log, steps, boundaries."""
