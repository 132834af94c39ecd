// Compiled by the packaging test with `--module preserve --moduleResolution bundler --strict
// --skipLibCheck` (cordis 4.0.0-rc.10's declarations resolve only without nodenext, see consumer.ts):
// the path for those who own the Cordis context and call loadDeployment themselves.
import { Context } from 'cordis'
import { AgentsSection } from 'dsh-boot'
import { loadDeployment } from 'dsh-loader'
import { createScope, type ScopeHandle } from 'dsh-scope'
import SystemPrompt, { renderPrompt, type PromptAssembly } from 'dsh-system-prompt'
import ToolRegistry from 'dsh-tools'

export async function ownContext(file: string): Promise<PromptAssembly> {
  const app = new Context()
  await app.plugin(SystemPrompt, { persona: 'Be brief.' })
  await app.plugin(ToolRegistry)
  const deployment = await loadDeployment(app, file, { sections: { agents: AgentsSection } })
  const ids: string[] = (deployment.sections.agents ?? []).map((row) => row.id)
  // @ts-expect-error the services augment Context: systemPrompt is typed, and has no method frobnicate
  app.systemPrompt.frobnicate()
  const scope: ScopeHandle = createScope(app, {}, { label: 'mine' })
  const assembly = await app.systemPrompt.assemble({ scope: scope.key })
  const text: string = renderPrompt(assembly)
  await scope.dispose()
  await deployment.dispose()
  return text && ids ? assembly : assembly
}

