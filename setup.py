"""Build configuration beyond pyproject.toml: the one optional C extension.

``agentbisect._otlpscan`` is the compiled core of ``afp aggregate``'s OTLP fast path
(docs/architecture.md). It is optional: where no C compiler is found the install still
succeeds, and afp answers through its Python paths (same output, slower).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "agentbisect._otlpscan",
            ["agentbisect/_otlpscan.c"],
            optional=True,
            extra_compile_args=["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"],
        )
    ]
)
