"""The browser client: plain JavaScript modules under ``static/``, served at ``/``.

Nothing here runs in Python; the package exists so that ``web/static/*`` ships
in the wheel and the server finds it with :mod:`importlib.resources`
(``server/http/static.py``). docs/web.md describes the page and its test contract.
"""
