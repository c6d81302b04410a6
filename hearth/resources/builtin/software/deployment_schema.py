"""The schemas of OS::Heat::SoftwareDeployment and StructuredDeployment (Heat 27's), and the
names of the inputs a deployment derives for its agent."""

from __future__ import annotations

from hearth.resources.attributes import AttributeSchema
from hearth.resources.schema import PropertySchema
from hearth.template.constraints import AllowedValues

CONFIG, SERVER, INPUT_VALUES, ACTIONS, NAME, SIGNAL_TRANSPORT = (
    "config", "server", "input_values", "actions", "name", "signal_transport",
)
INPUT_KEY, INPUT_VALUES_VALIDATE = "input_key", "input_values_validate"
STDOUT, STDERR, STATUS_CODE = "deploy_stdout", "deploy_stderr", "deploy_status_code"

CREATE, UPDATE, DELETE, SUSPEND, RESUME = "CREATE", "UPDATE", "DELETE", "SUSPEND", "RESUME"
DEPLOY_ACTIONS = (CREATE, UPDATE, DELETE, SUSPEND, RESUME)

CFN_SIGNAL, TEMP_URL_SIGNAL, HEAT_SIGNAL, NO_SIGNAL, ZAQAR_SIGNAL = (
    "CFN_SIGNAL", "TEMP_URL_SIGNAL", "HEAT_SIGNAL", "NO_SIGNAL", "ZAQAR_SIGNAL",
)
SIGNAL_TRANSPORTS = (CFN_SIGNAL, TEMP_URL_SIGNAL, HEAT_SIGNAL, NO_SIGNAL, ZAQAR_SIGNAL)

# The inputs a deployment adds for its agent.
DEPLOY_SERVER_ID = "deploy_server_id"
DEPLOY_ACTION = "deploy_action"
DEPLOY_STACK_ID = "deploy_stack_id"
DEPLOY_RESOURCE_NAME = "deploy_resource_name"
DEPLOY_SIGNAL_TRANSPORT = "deploy_signal_transport"
DEPLOY_SIGNAL_ID = "deploy_signal_id"
DEPLOY_SIGNAL_VERB = "deploy_signal_verb"
DEPLOY_AUTH_URL = "deploy_auth_url"
DEPLOY_USERNAME = "deploy_username"
DEPLOY_USER_ID = "deploy_user_id"
DEPLOY_PASSWORD = "deploy_password"
DEPLOY_PROJECT_ID = "deploy_project_id"
DEPLOY_REGION_NAME = "deploy_region_name"

# Heat's default_deployment_signal_transport.
DEFAULT_SIGNAL_TRANSPORT = CFN_SIGNAL

PROPERTIES: dict[str, PropertySchema] = {
    CONFIG: PropertySchema(
        PropertySchema.STRING,
        "ID of software configuration resource to execute when applying to the server.",
        update_allowed=True,
    ),
    SERVER: PropertySchema(
        PropertySchema.STRING,
        "ID of resource to apply configuration to. Normally this should be a Nova server ID.",
        required=True,
    ),
    INPUT_VALUES: PropertySchema(
        PropertySchema.MAP,
        "Input values to apply to the software configuration on this server.",
        update_allowed=True,
    ),
    ACTIONS: PropertySchema(
        PropertySchema.LIST,
        "Which lifecycle actions of the deployment resource will result in this deployment "
        "being triggered.",
        update_allowed=True,
        default=[CREATE, UPDATE],
        constraints=[AllowedValues(list(DEPLOY_ACTIONS))],
    ),
    NAME: PropertySchema(
        PropertySchema.STRING,
        "Name of the derived config associated with this deployment. This is used to apply a "
        "sort order to the list of configurations currently deployed to a server.",
        update_allowed=True,
    ),
    SIGNAL_TRANSPORT: PropertySchema(
        PropertySchema.STRING,
        "How the server should signal to heat with the deployment output values. CFN_SIGNAL "
        "will allow an HTTP POST to a CFN keypair signed URL. TEMP_URL_SIGNAL will create a "
        "Swift TempURL to be signaled via HTTP PUT. HEAT_SIGNAL will allow calls to the Heat "
        "API resource-signal using the provided keystone credentials. ZAQAR_SIGNAL will "
        "create a dedicated zaqar queue to be signaled using the provided keystone "
        "credentials. NO_SIGNAL will result in the resource going to the COMPLETE state "
        "without waiting for any signal.",
        default=DEFAULT_SIGNAL_TRANSPORT,
        constraints=[AllowedValues(list(SIGNAL_TRANSPORTS))],
    ),
}

STRUCTURED_PROPERTIES: dict[str, PropertySchema] = {
    **PROPERTIES,
    INPUT_KEY: PropertySchema(
        PropertySchema.STRING,
        "Name of key to use for substituting inputs during deployment.",
        default="get_input",
    ),
    INPUT_VALUES_VALIDATE: PropertySchema(
        PropertySchema.STRING,
        "Perform a check on the input values passed to verify that each required input has a "
        "corresponding value. When the property is set to STRICT and no value is passed, an "
        "exception is raised.",
        default="LAX",
        constraints=[AllowedValues(["LAX", "STRICT"])],
    ),
}

ATTRIBUTES: dict[str, AttributeSchema] = {
    STDOUT: AttributeSchema("Captured stdout from the configuration execution.",
                            type=AttributeSchema.STRING),
    STDERR: AttributeSchema("Captured stderr from the configuration execution.",
                            type=AttributeSchema.STRING),
    STATUS_CODE: AttributeSchema("Returned status code from the configuration execution.",
                                 type=AttributeSchema.STRING),
}

DESCRIPTION = (
    "This resource associates a server with some configuration.\n\n"
    "The configuration is to be deployed to that server.\n\n"
    "A deployment allows input values to be specified which map to the inputs\n"
    "schema defined in the config resource. These input values are interpreted\n"
    "by the configuration tool in a tool-specific manner.\n\n"
    "Whenever this resource goes to an IN_PROGRESS state, it creates an\n"
    "ephemeral config that includes the inputs values plus a number of extra\n"
    "inputs which have names prefixed with ``deploy_``. The extra inputs relate\n"
    "to the current state of the stack, along with the information and\n"
    "credentials required to signal back the deployment results.\n\n"
    "Unless signal_transport=NO_SIGNAL, this resource will remain in an\n"
    "IN_PROGRESS state until the server signals it with the output values\n"
    "for that deployment. Those output values are then available as resource\n"
    "attributes, along with the default attributes deploy_stdout,\n"
    "deploy_stderr and deploy_status_code.\n\n"
    "Specifying actions other than the default CREATE and UPDATE will result\n"
    "in the deployment being triggered in those actions. For example this would\n"
    "allow cleanup configuration to be performed during actions SUSPEND and\n"
    "DELETE. A config could be designed to only work with some specific\n"
    "actions, or a config can read the value of the deploy_action input to\n"
    "allow conditional logic to perform different configuration for different\n"
    "actions."
)

STRUCTURED_DESCRIPTION = (
    "A resource which has same logic with OS::Heat::SoftwareDeployment.\n\n"
    "A deployment resource like OS::Heat::SoftwareDeployment, but which\n"
    "performs input value substitution on the config defined by a\n"
    "OS::Heat::StructuredConfig resource.\n\n"
    "Some configuration tools have no concept of inputs, so the input value\n"
    "substitution needs to occur in the deployment resource. An example of this\n"
    "is the JSON metadata consumed by the cfn-init tool.\n\n"
    "Where the config contains {get_input: input_name} this will be substituted\n"
    "with the value of input_name in this resource's input_values. If get_input\n"
    "needs to be passed through to the substituted configuration then a\n"
    "different input_key property value can be specified."
)
