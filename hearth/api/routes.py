"""The route table: every URL of API v1, its handler class and a one-line summary per method.

The same table builds the Falcon app and the OpenAPI document, so the two cannot drift.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hearth.api import catalog, resources, signal_urls, software, stacks
from hearth.api.handler import Handler

T = "/v1/{tenant_id}"
S = T + "/stacks/{stack_name}/{stack_id}"
R = S + "/resources/{resource_name}"


@dataclass(frozen=True)
class Route:
    path: str
    handler: type[Handler]
    methods: dict[str, str]  # method -> summary
    options: dict[str, str] = field(default_factory=dict)


# Public signal URLs: the secret in the path is the credential (no Keystone token).
TOKEN_ROUTES: tuple[Route, ...] = (
    Route("/v1/signal/{resource_uuid}/{secret}", signal_urls.TokenSignal,
          {"POST": "Signal a resource through its signal URL (no token)",
           "PUT": "Signal a resource through its signal URL (no token)"}),
    Route("/v1/metadata/{resource_uuid}/{secret}", signal_urls.MetadataURL,
          {"GET": "A server resource's metadata, for its agent (no token)",
           "HEAD": "A server resource's metadata, for its agent (no token)"}),
    Route("/v1/waitcondition/{resource_uuid}/{secret}", signal_urls.WaitConditionSignal,
          {"PUT": "Signal a CloudFormation wait condition handle (no token)",
           "POST": "Signal a CloudFormation wait condition handle (no token)"}),
)

ROUTES: tuple[Route, ...] = (
    Route(T + "/stacks", stacks.StackCollection,
          {"GET": "List stacks", "POST": "Create a stack"}),
    Route(T + "/stacks/detail", stacks.StackDetail, {"GET": "List stacks with details"}),
    Route(T + "/stacks/preview", stacks.StackPreview, {"POST": "Preview a stack create"}),
    Route(T + "/stacks/{stack_name}", stacks.StackLookup,
          {m: "Redirect to the stack's canonical URL"
           for m in ("GET", "POST", "PUT", "PATCH", "DELETE")}),
    *(
        Route(T + "/stacks/{stack_name}/" + sub, stacks.StackLookupPath,
              {m: f"Redirect to the stack's canonical URL + /{sub}"
               for m in ("GET", "POST", "PUT", "PATCH", "DELETE")}, {"path": sub})
        for sub in stacks.LOOKUP_PATHS
    ),
    Route(S, stacks.StackItem, {"GET": "Show a stack", "PUT": "Update a stack",
                                "PATCH": "Patch-update a stack", "DELETE": "Delete a stack"}),
    Route(S + "/preview", stacks.StackUpdatePreview,
          {"PUT": "Preview a stack update", "PATCH": "Preview a patch-update"}),
    Route(S + "/abandon", stacks.StackAbandon, {"DELETE": "Abandon a stack"}),
    Route(S + "/export", stacks.StackExport, {"GET": "Export a stack's data"}),
    Route(S + "/template", stacks.StackTemplate, {"GET": "Show a stack's template"}),
    Route(S + "/environment", stacks.StackEnvironment, {"GET": "Show a stack's environment"}),
    Route(S + "/files", stacks.StackFiles, {"GET": "Show a stack's files"}),
    Route(S + "/outputs", stacks.StackOutputs, {"GET": "List a stack's outputs"}),
    Route(S + "/outputs/{output_key}", stacks.StackOutput, {"GET": "Show one output"}),
    Route(S + "/snapshots", stacks.StackSnapshots,
          {"GET": "List snapshots", "POST": "Snapshot a stack"}),
    Route(S + "/snapshots/{snapshot_id}", stacks.StackSnapshot,
          {"GET": "Show a snapshot", "DELETE": "Delete a snapshot"}),
    Route(S + "/snapshots/{snapshot_id}/restore", stacks.StackSnapshotRestore,
          {"POST": "Restore a snapshot"}),
    Route(S + "/actions", stacks.StackActions,
          {"POST": "Suspend, resume, check or cancel an update"}),
    Route(S + "/resources", resources.Resources, {"GET": "List a stack's resources"}),
    Route(R, resources.Resource,
          {"GET": "Show a resource", "PATCH": "Mark a resource (un)healthy"}),
    Route(R + "/metadata", resources.ResourceMetadata, {"GET": "Show a resource's metadata"}),
    Route(R + "/signal", resources.ResourceSignal, {"POST": "Signal a resource"}),
    Route(R + "/events", resources.Events, {"GET": "List a resource's events"}),
    Route(R + "/events/{event_id}", resources.Event, {"GET": "Show an event"}),
    Route(S + "/events", resources.Events, {"GET": "List a stack's events"}),
    Route(T + "/validate", catalog.Validate, {"POST": "Validate a template"}),
    Route(T + "/build_info", catalog.BuildInfo, {"GET": "Show build information"}),
    Route(T + "/services", catalog.Services, {"GET": "List engine services"}),
    Route(T + "/resource_types", catalog.ResourceTypes, {"GET": "List resource types"}),
    Route(T + "/resource_types/{type_name}", catalog.ResourceType,
          {"GET": "Show a resource type's schema"}),
    Route(T + "/resource_types/{type_name}/template", catalog.ResourceTypeTemplate,
          {"GET": "Generate a template for a resource type"}),
    Route(T + "/template_versions", catalog.TemplateVersions,
          {"GET": "List template versions"}),
    Route(T + "/template_versions/{template_version}/functions", catalog.TemplateFunctions,
          {"GET": "List a template version's functions"}),
    Route(T + "/software_configs", software.SoftwareConfigs,
          {"GET": "List software configs", "POST": "Create a software config"}),
    Route(T + "/software_configs/{config_id}", software.SoftwareConfig,
          {"GET": "Show a software config", "DELETE": "Delete a software config"}),
    Route(T + "/software_deployments", software.SoftwareDeployments,
          {"GET": "List software deployments", "POST": "Create a software deployment"}),
    Route(T + "/software_deployments/metadata/{server_id}",
          software.SoftwareDeploymentMetadata,
          {"GET": "Show the deployment metadata of a server"}),
    Route(T + "/software_deployments/{deployment_id}", software.SoftwareDeployment,
          {"GET": "Show a software deployment", "PUT": "Update a software deployment",
           "DELETE": "Delete a software deployment"}),
    *TOKEN_ROUTES,
)
