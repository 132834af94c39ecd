/**
 * An OpenTelemetry SDK kept in memory for the tests: a tracer provider whose spans land in an
 * `InMemorySpanExporter`, and a meter provider whose metrics a reader collects on demand.
 */
import { MeterProvider, MetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base'

/** A metric reader that exports nothing and collects when asked. */
class CollectingReader extends MetricReader {
  protected onShutdown(): Promise<void> {
    return Promise.resolve()
  }

  protected onForceFlush(): Promise<void> {
    return Promise.resolve()
  }
}

/** One collected data point of a histogram. */
export interface Point {
  metric: string
  attributes: Record<string, unknown>
  sum: number
  count: number
}

/** The in-memory SDK: providers for the plugin's config, and what they have taken. */
export interface MemorySdk {
  tracerProvider: BasicTracerProvider
  meterProvider: MeterProvider
  /** The ended spans, in the order they ended. */
  spans(): ReadableSpan[]
  /** Every histogram data point collected now. */
  points(): Promise<Point[]>
}

/** A fresh in-memory SDK. */
export function memorySdk(): MemorySdk {
  const exporter = new InMemorySpanExporter()
  const reader = new CollectingReader()
  const meterProvider = new MeterProvider({ readers: [reader] })
  return {
    tracerProvider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    meterProvider,
    spans: () => exporter.getFinishedSpans(),
    async points() {
      const { resourceMetrics } = await reader.collect() as { resourceMetrics: ResourceMetrics }
      return resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics.flatMap((metric) => metric.dataPoints.map((point) => {
        const value = point.value as { sum: number; count: number }
        return { metric: metric.descriptor.name, attributes: { ...point.attributes }, sum: value.sum, count: value.count }
      })))
    },
  }
}
