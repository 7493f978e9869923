"""``afp diff``: where two runs of the same task part ways, and which difference did it.

``steps`` reads each run's timeline of steps and the context sources each step adds (from the
one run model), ``normalize`` says when two texts are the same (formatting, ids and times set
aside), ``alignment`` pairs the two timelines by step signatures, ``divergence`` finds the first
step whose inputs differ and the first LLM call whose output differs, ``differences`` lists and
ranks the sources that differ in the diverging call's context, ``restore`` is the optional
causal check by replay, and ``api.diff_runs`` puts them together into a ``DiffResult``.
"""
