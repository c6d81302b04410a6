"""The web console: a browser client of API v1 served by Hearth itself.

The pages are plain ES modules, HTML and CSS under ``static/`` (shipped as package data; no
front-end build). The Python side only serves them, tells the page how to sign in, and passes
a Keystone password login through (the browser cannot POST to Keystone cross-origin).
"""
