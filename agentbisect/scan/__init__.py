"""``afp scan``: many runs (files, directories, globs) into Parquet tables, one row per run.

``walk`` finds the files, ``one_file.scan_file`` reads one file through the importers' front
door into rows (the same function on every engine), ``engines`` runs it in local worker
processes or as Ray tasks, ``tables`` declares the Parquet schemas and streams rows into row
groups written to temp names, ``manifest`` decides what a second scan reuses, and
``fleet.scan`` ties them together into a ``results.scan.ScanResult``.
"""
