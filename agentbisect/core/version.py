"""The version of agentbisect (one definition; the package and the envelope read it)."""

__version__ = "0.1.0"
