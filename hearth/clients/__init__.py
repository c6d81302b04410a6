"""Other OpenStack services, through openstacksdk: credentials, sessions, errors and limits.

Resource plugins reach a service through ``ResourceContext.cloud`` (a ``Cloud``), never by
building clients of their own: the engine decides whose credentials a stack uses (the
stack's Keystone trust, or the embedded mode's ``clouds.yaml`` cloud) and how many calls to
one service may run at once. This package imports only ``hearth.common``.
"""
