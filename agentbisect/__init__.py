"""agentbisect: offline forensics for recorded agentfootprint agent runs."""

__version__ = "0.1.0"
