"""The localizer's pipeline (bisect.md §0): slice, weights, suspects, flags, from a ``Run`` to a report."""
