import { expect } from 'chai'
import { Config, FilesystemErrors } from 'dsh-plugin-filesystem'
import { thrown } from 'dsh-testing'

describe('dsh-plugin-filesystem: every config error carries a stable code and the fields it is about', () => {
  const made = [
    FilesystemErrors.unknownTools(['grep'], ['read', 'write']),
    FilesystemErrors.repeatedTool('read'),
    FilesystemErrors.noTools(),
    FilesystemErrors.unknownOverride(['grep', 'ls'], ['read']),
    FilesystemErrors.overrideNotOffered(['write'], ['read']),
    FilesystemErrors.emptyOverride('read', 'guidance'),
    FilesystemErrors.idleOverride('read'),
  ]

  it('each factory makes a ValidationError with its code and details, and the message unchanged', () => {
    expect(made.map((e) => ({ name: e.name, code: e.code, details: e.details, message: e.message }))).to.deep.equal([
      { name: 'ValidationError', code: 'FS_UNKNOWN_TOOLS', details: { names: ['grep'], known: ['read', 'write'] }, message: 'tools lists unknown tool "grep"; known tools: read, write' },
      { name: 'ValidationError', code: 'FS_REPEATED_TOOL', details: { name: 'read' }, message: 'tools lists "read" more than once' },
      { name: 'ValidationError', code: 'FS_NO_TOOLS', details: {}, message: 'tools must list at least one tool (to offer none, do not load the plugin)' },
      { name: 'ValidationError', code: 'FS_UNKNOWN_OVERRIDE', details: { names: ['grep', 'ls'], known: ['read'] }, message: 'overrides names unknown tools "grep", "ls"; known tools: read' },
      { name: 'ValidationError', code: 'FS_OVERRIDE_NOT_OFFERED', details: { names: ['write'], offered: ['read'] }, message: 'overrides names "write", which is not in tools (read)' },
      { name: 'ValidationError', code: 'FS_EMPTY_OVERRIDE', details: { tool: 'read', key: 'guidance' },
        message: 'overrides.read.guidance must not be empty (leave it out to keep the built-in text, or set includeGuidance: false to send the schemas alone)' },
      { name: 'ValidationError', code: 'FS_IDLE_OVERRIDE', details: { tool: 'read' }, message: 'overrides.read sets neither description nor guidance' },
    ])
    expect(made.length).to.equal(Object.values(FilesystemErrors).length)
    expect(new Set(made.map((e) => e.code)).size).to.equal(made.length)
  })

  it('the schema throws the coded error itself', () => {
    const error = thrown(() => Config({ tools: ['read', 'read'] })) as Error & { code?: string; details?: object }
    expect([error.code, error.details]).to.deep.equal(['FS_REPEATED_TOOL', { name: 'read' }])
  })
})
