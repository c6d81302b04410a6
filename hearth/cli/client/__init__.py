"""The client half of ``hearth``: stacks, resources, events and outputs on any
Heat-compatible endpoint (Hearth or Heat), through python-heatclient.

Command tree::

    hearth stack create|update|delete|list|show|preview|abandon|adopt
    hearth stack suspend|resume|check|cancel|restore
    hearth stack snapshot create|list|show|delete
    hearth resource list|show|metadata|signal|mark-unhealthy
    hearth event list [--follow]|show
    hearth output list|show
    hearth service list
    hearth template validate --remote   (the local validator otherwise)

See ``connection`` for how the endpoint is chosen.
"""

from __future__ import annotations

from hearth.cli.client import events, resources, services, stack_actions, stacks, validate
from hearth.cli.client.command import Subparsers, group

STACK_HELP = (
    "stacks on a Heat-compatible endpoint (create, update, delete, list, show, ...) and the "
    "operator's reset-state"
)


def register(commands: Subparsers) -> None:
    """Add the client commands to the ``hearth`` parser (after the other groups: ``stack``
    is shared with the database commands, ``template validate`` gains its remote mode)."""
    stack_cmds = group(commands, "stack", STACK_HELP, "stack_command")
    stacks.register(stack_cmds)
    stack_actions.register(stack_cmds)
    resources.register(commands)
    events.register(commands)
    validate.register(commands)
    services.register(commands)
