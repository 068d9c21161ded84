// Types of parse-prometheus-text-format (it ships none): the families of a Prometheus text exposition.
declare module 'parse-prometheus-text-format' {
  export interface MetricFamily {
    name: string;
    help: string;
    type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    metrics: { value?: string; labels?: Record<string, string>; buckets?: Record<string, string>; count?: string }[];
  }
  export default function parsePrometheusTextFormat(text: string): MetricFamily[];
}
