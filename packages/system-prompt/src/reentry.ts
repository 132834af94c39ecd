/**
 * The re-entrancy guard of `assemble()`. An assemble listener that assembles (or steps its agent)
 * again for the scope being assembled starts an assembly that runs the same listener, without end:
 * issue 20 saw the stack overflow, the step rejected, then 25 more rejections go unhandled and the
 * host exit. An assembly with listeners that starts while another one is in flight runs in an
 * `AsyncLocalStorage` frame that links to the frame it was started in, so an assembly can see, across
 * awaits, which framed assemblies it is nested in. One for a scope that an unfinished enclosing
 * assembly is assembling, or nested more than {@link MAX_NESTED_ASSEMBLIES} deep, is refused with
 * `PROMPT_ASSEMBLY_REENTRANT`, naming the listener the enclosing assembly is waiting on. Overlapping
 * assemblies that are not nested (two steps at once) never share a frame.
 *
 * On Node 20 an `AsyncLocalStorage` that runs turns on a promise hook for the whole process: every
 * promise made while it is on (the assembly's own, a harness's awaits) costs about three times as
 * much. So the first assembly of a nesting (one that starts while no other assembly with listeners is
 * in flight: every assembly of a harness that steps one agent at a time) gets no frame and costs no
 * hook. Every assembly nested in it starts while it is in flight, so it has a frame, and so does
 * everything nested deeper: a listener that assembles its own scope again is let through once (the
 * frameless first cannot be seen from the second) and refused at the next level, with the same code,
 * the same listener named, and the same rejection for the step that started it. The depth counts the
 * frameless first assembly too (one more than the frames, once any frame encloses the new assembly).
 * The storage is switched off once no assembly with listeners is in flight and the event loop has
 * turned (a `setImmediate`); switched off, it forgets nothing that matters: only unfinished frames
 * refuse an assembly, and none is left then.
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { ScopeKey } from 'dsh-scope'
import { assemblyReentrant } from './errors.js'

/** How many assemblies may be nested in one another (for different scopes) before the next is refused. */
export const MAX_NESTED_ASSEMBLIES = 8

/** One assembly in flight, as the assemblies started inside it see it. */
export interface AssemblyFrame {
  readonly scope: ScopeKey | undefined
  readonly parent: AssemblyFrame | undefined
  /** The plugin of the listener the assembly is waiting on (kept up to date by the waterfall). */
  readonly watch: { holder?: string }
  /** Set when the assembly settled: work it left behind (a timer) is not nested in it any more. */
  done: boolean
}

const frames = new AsyncLocalStorage<AssemblyFrame>()
/** Assemblies with listeners not yet settled, whether a frame ran since the storage went off, and whether a turn of the event loop will switch it off. */
let inFlight = 0
let framesRan = false
let offScheduled = false

/** Whether the frames' storage is on (its promise hook installed): for tests that check it goes off. */
export function assemblyFramesOn(): boolean {
  return (frames as unknown as { enabled?: boolean }).enabled === true
}

function settled(frame: AssemblyFrame): void {
  frame.done = true
  if (--inFlight > 0 || offScheduled || !framesRan) return
  offScheduled = true
  setImmediate(() => {
    offScheduled = false
    if (inFlight > 0) return
    framesRan = false
    frames.disable()
  })
}

/**
 * Runs `assemble` for `scope`, or rejects with `PROMPT_ASSEMBLY_REENTRANT` when it is nested in an
 * unfinished assembly of the same scope, or too deep. An assembly without listeners (`listened` false)
 * runs no code that could start another one later, so it gets no frame of its own and is not counted
 * in flight; it is still checked against the frames it runs in. One with listeners gets a frame (an
 * `AsyncLocalStorage.run`) only when another one with listeners is in flight as it starts.
 */
export function guardAssembly<T>(scope: ScopeKey | undefined, listened: boolean, assemble: (frame: AssemblyFrame) => Promise<T>): Promise<T> {
  const outer = frames.getStore()
  let depth = 1
  for (let frame = outer; frame; frame = frame.parent) {
    if (frame.done) continue
    // An unfinished frame's chain starts inside the frameless first assembly: it counts too.
    depth += depth === 1 ? 2 : 1
    if (frame.scope === scope || depth > MAX_NESTED_ASSEMBLIES) {
      return Promise.reject(assemblyReentrant(innermostHolder(outer) ?? '(unknown)', depth, MAX_NESTED_ASSEMBLIES))
    }
  }
  const frame: AssemblyFrame = { scope, parent: outer, watch: {}, done: false }
  if (!listened) return assemble(frame)
  const framed = inFlight > 0
  inFlight++
  const start = () => {
    let run: Promise<T>
    try {
      run = assemble(frame)
    } catch (error) {
      settled(frame)
      throw error
    }
    run.then(() => settled(frame), () => settled(frame))
    return run
  }
  if (!framed) return start()
  framesRan = true
  return frames.run(frame, start)
}

/** The listener the innermost unfinished assembly waits on: the one that started the nested assembly. */
function innermostHolder(frame: AssemblyFrame | undefined): string | undefined {
  for (; frame; frame = frame.parent) if (!frame.done && frame.watch.holder !== undefined) return frame.watch.holder
}
