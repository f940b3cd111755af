"""Fuzz targets (atheris); not run by ``make test``, see each module's docstring."""
