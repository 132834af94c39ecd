/**
 * An OTLP/HTTP receiver for the end-to-end test, listening on 127.0.0.1 only: it takes the JSON
 * encoding of the OpenTelemetry protocol (`POST /v1/traces` with an `ExportTraceServiceRequest`,
 * `POST /v1/metrics` with an `ExportMetricsServiceRequest`, gzip or not), answers as a collector does
 * (200 with an empty JSON response), and decodes what it took into plain spans and histogram points.
 * No collector installs from the npm registry or Debian's packages here (the OpenTelemetry Collector
 * is a Go program); this stands in for one.
 */
import { once } from 'node:events'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gunzipSync } from 'node:zlib'

/** An OTLP `AnyValue` in the protocol's JSON encoding (int64 may come as a number or a decimal string). */
interface AnyValue {
  stringValue?: string
  boolValue?: boolean
  intValue?: number | string
  doubleValue?: number
  arrayValue?: { values?: AnyValue[] }
}

/** An OTLP `KeyValue`. */
interface KeyValue {
  key: string
  value?: AnyValue
}

/** The parts of an `ExportTraceServiceRequest` read here. */
interface TraceRequest {
  resourceSpans?: { scopeSpans?: { scope?: { name?: string }; spans?: { name: string; kind: number; attributes?: KeyValue[]; events?: { name: string; attributes?: KeyValue[] }[] }[] }[] }[]
}

/** The parts of an `ExportMetricsServiceRequest` read here (histograms only: the plugin records no other kind). */
interface MetricsRequest {
  resourceMetrics?: { scopeMetrics?: { scope?: { name?: string }; metrics?: { name: string; histogram?: { dataPoints?: { attributes?: KeyValue[]; sum?: number; count: number | string }[] } }[] }[] }[]
}

/** A received span, decoded. */
export interface ReceivedSpan {
  scope: string | undefined
  name: string
  kind: number
  attributes: Record<string, unknown>
  events: { name: string; attributes: Record<string, unknown> }[]
}

/** A received histogram data point, decoded. */
export interface ReceivedPoint {
  scope: string | undefined
  metric: string
  attributes: Record<string, unknown>
  sum: number | undefined
  count: number
}

/** The receiver: where to send, what arrived, and how to stop it. */
export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: append `/v1/traces` or `/v1/metrics`. */
  origin: string
  /** The request paths in the order they arrived, with their content type. */
  requests: { path: string; contentType: string | undefined }[]
  spans(): ReceivedSpan[]
  points(): ReceivedPoint[]
  close(): Promise<void>
}

/** Decodes an OTLP JSON `AnyValue` to the plain value an SDK attribute holds. */
function plain(value: AnyValue | undefined): unknown {
  if (value === undefined) return undefined
  if (value.stringValue !== undefined) return value.stringValue
  if (value.boolValue !== undefined) return value.boolValue
  if (value.intValue !== undefined) return Number(value.intValue)
  if (value.doubleValue !== undefined) return value.doubleValue
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(plain)
  return undefined
}

/** Decodes an OTLP JSON attribute list. */
function attributes(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, plain(value)]))
}

async function body(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  const raw = Buffer.concat(chunks)
  return JSON.parse((request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8'))
}

/** Starts a receiver on an ephemeral port of 127.0.0.1. */
export async function otlpReceiver(): Promise<OtlpReceiver> {
  const traces: TraceRequest[] = []
  const metrics: MetricsRequest[] = []
  const requests: OtlpReceiver['requests'] = []
  const server = createServer((request, response) => {
    requests.push({ path: request.url ?? '', contentType: request.headers['content-type'] })
    body(request).then((decoded) => {
      if (request.url === '/v1/traces') traces.push(decoded as TraceRequest)
      else if (request.url === '/v1/metrics') metrics.push(decoded as MetricsRequest)
      else return response.writeHead(404).end()
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    }, () => response.writeHead(400).end())
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    spans: () => traces.flatMap((request) => (request.resourceSpans ?? []).flatMap((resource) => (resource.scopeSpans ?? []).flatMap((scope) => (scope.spans ?? []).map((span) => ({
      scope: scope.scope?.name,
      name: span.name,
      kind: span.kind,
      attributes: attributes(span.attributes),
      events: (span.events ?? []).map((event) => ({ name: event.name, attributes: attributes(event.attributes) })),
    }))))),
    points: () => metrics.flatMap((request) => (request.resourceMetrics ?? []).flatMap((resource) => (resource.scopeMetrics ?? []).flatMap((scope) => (scope.metrics ?? []).flatMap((metric) => (metric.histogram?.dataPoints ?? []).map((point) => ({
      scope: scope.scope?.name,
      metric: metric.name,
      attributes: attributes(point.attributes),
      sum: point.sum,
      count: Number(point.count),
    })))))),
    async close() {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}
