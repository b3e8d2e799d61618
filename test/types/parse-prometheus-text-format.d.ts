// The package ships no types: what test/helpers/prometheus.ts reads of its answer.
declare module 'parse-prometheus-text-format' {
  export interface PrometheusSample {
    value?: string;
    labels?: Record<string, string>;
    buckets?: Record<string, string>;
    count?: string;
    sum?: string;
  }
  export interface PrometheusFamily {
    name: string;
    help: string;
    type: string;
    metrics: PrometheusSample[];
  }
  /** Throws on a line that is not in the text format. */
  export default function parsePrometheusTextFormat(text: string): PrometheusFamily[];
}
