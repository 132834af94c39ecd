/**
 * `dsh-boot`: where an agent and a deployment file meet. `bootDeployment` loads a YAML deployment with
 * `dsh-loader`, creates the agents of its `agents:` section with `dsh-agent`, and hands a harness the
 * services and agents; `AgentsSection` declares that section to anyone calling `loadDeployment` alone.
 * A harness that builds its agents in code needs `dsh-agent` only, and no YAML loader.
 * @module
 */
export { bootDeployment } from './boot.js'
export type { BootedDeployment, BootOptions, DeploymentServices } from './boot.js'
export { AgentsSection, AgentRow, validateAgents } from './agents-section.js'
export type { AgentSpec, AgentsSchema, Issue as AgentRowIssue } from './agents-section.js'
export type { AgentSections } from './after-load.js'
export * as BootErrors from './errors.js'
