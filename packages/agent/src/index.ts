/**
 * `dsh-agent`: the `agents` service. One scope per agent, presets as standing parent scopes, the loop
 * variables, and the conversation record that turns assemblies into cache-friendly requests. Booting a
 * deployment file (`bootDeployment`, the `agents:` section) lives in `dsh-boot`, so an app that creates
 * its agents in code does not install the YAML loader.
 * @module
 */
import { Agents } from './agents.js'

export { Agents, Config } from './agents.js'
export type { CreateAgentOptions, PresetHandle, RestoreOptions } from './agents.js'
export { Agent } from './agent.js'
export { Fork } from './fork.js'
export { assembleContextFor } from './assemble-context.js'
export type { PublishedAgentOptions, PublishedSession, PublishedSessionHeader } from './published-views.js'
export type { SessionStartPayload, SessionStartSource } from './session-start.js'
export type { ForkOptions, ForkTools } from './fork.js'
export { DEFAULT_SUBAGENT_START, SUBAGENT_STARTS } from './subagent-start.js'
export type { SubagentStart } from './subagent-start.js'
export { ToolChangeSchema, DEFAULT_TOOL_CHANGE, TOOL_CHANGE_CHOICES } from './tool-changes.js'
export { classifyTools } from './tool-classify.js'
export { TOOL_CHANGE_NOTE_MARKER } from './tool-change-note.js'
export type { ToolChange, ToolChangeKind, ToolChangeOption, ToolChangePolicy } from './tool-changes.js'
export type { UnavailableCall } from './tool-unavailable.js'
export type { AgentOptions, ProviderReply, RecordedMessage, RecordOptions, StepOptions, StepResult, AgentInit } from './agent.js'
export { stepEntries } from './conversation.js'
export { CompactionPlan } from './compaction.js'
export type { CompactionOptions, CompactionSource, CompactionSourceOptions } from './compaction.js'
export { COMPACTION_SUMMARY_MARKER, REANCHOR_KINDS } from './epoch.js'
export type { CompactionKeep, Epoch, EpochMark, HiddenSection, ReanchorKind, ReanchorPolicy, ReanchorPrice, ReportedEpochCost } from './epoch.js'
export { DEFAULT_REANCHOR_HORIZON, epochLine, reportedCost } from './reanchor-price.js'
export type { LedgerEpoch } from './ledger-epoch.js'
export { ADVICE_THRESHOLDS, nextAdvice, profileFigures } from './budget.js'
export { MAX_PENDING_MEASURES } from './deferred-measures.js'
export type { AdviceThresholds, CompactionAdvice, ContextBudget, ProfileFigures } from './budget.js'
export { DEFAULT_MODEL_PROFILE, inputBudget, MODEL_PROFILES, modelProfile } from 'dsh-wire'
export type { ModelProfile, ModelProfileOverride } from 'dsh-wire'
export { ANTHROPIC_CACHE_DIAGNOSIS_BETA, buildMessages, normalizeUsage, readReply, replyAccumulator, REPLY_FORMATS, toRequestTool, WIRE_FORMATS } from 'dsh-wire'
export type {
  ChatContentPart, ChatRequest, ChatRequestMessage, ContentPart, ReadReply, ReplyAccumulator, ReplyFormat, ReplyPart, RequestBodies, RequestBody, RequestTool, Usage, UsageFormat, WireFormat,
} from 'dsh-wire'
export type {
  AssistantMessage, ChatMessage, ConversationEntry, CustomToolCall, EntrySource, FunctionToolCall, PromptChangePolicy, SystemMessage, ToolCall,
  ToolMessage, UserMessage,
} from './conversation.js'
export { exportLedger, LEDGER_FORMAT, LEDGER_VERSION, LEDGER_VERSIONS, ledgerLines } from './ledger-format.js'
export type { LedgerEntryFields, LedgerHeader, LedgerVersion } from './ledger-format.js'
export type { RequestFacts } from './ledger-request.js'
export { firstSectionBreak, partText } from './ledger-parts.js'
export type { PromptPart, SectionBreak } from './ledger-parts.js'
export { declaredTools, entryTools } from './ledger-tools.js'
export { RESUME_POLICIES } from './resume-guard.js'
export type { ResumePolicy, ResumeReport } from './resume-guard.js'
export type { ResumeListener } from './resume-event.js'
export { readLedger } from './ledger-read.js'
export type { LedgerInput, LedgerLine, ParsedLedger, ReadLedgerOptions } from './ledger-read.js'
export { FileLedgerStore, LedgerWriter } from './ledger-store.js'
export type { FileLedgerStoreOptions, LedgerStore, LedgerWriterOptions } from './ledger-store.js'
export * as AgentErrors from './errors.js'

export default Agents
