"""The analyses of a run behind ``afp events``, ``aggregate`` and ``record``: each returns a result."""
