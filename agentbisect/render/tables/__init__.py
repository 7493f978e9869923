"""Terminal tables, one module per result type; ``agentbisect.render.table`` picks one."""
