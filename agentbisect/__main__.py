"""`python -m agentbisect` runs the `afp` command."""

from agentbisect.cli import main

main()
