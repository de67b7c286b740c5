/**
 * The series names and label names a PromQL expression refers to, by a small tokenizer: enough
 * for the expressions of the chart's rules and dashboard (selectors, `by (…)` clauses, function
 * calls, ranges, offsets), not a PromQL parser. String literals and `[…]` ranges are dropped
 * first, so label values, regexes and Grafana variables are never taken for names.
 */
const KEYWORDS = new Set([
  'sum',
  'min',
  'max',
  'avg',
  'count',
  'stddev',
  'stdvar',
  'topk',
  'bottomk',
  'quantile',
  'rate',
  'irate',
  'increase',
  'delta',
  'histogram_quantile',
  'label_values',
  'abs',
  'clamp_min',
  'clamp_max',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'offset',
  'bool',
  'vector',
  'scalar',
  'time',
  'absent',
]);

export interface SeriesReference {
  readonly name: string;
  /** Label names in its selector (`{namespace=…, code=~…}`). */
  readonly labels: readonly string[];
}

export interface ExpressionNames {
  readonly series: readonly SeriesReference[];
  /** Label names of `by (…)` and `without (…)` clauses. */
  readonly groupingLabels: readonly string[];
}

export function namesIn(expression: string): ExpressionNames {
  const text = expression.replace(/"(?:[^"\\]|\\.)*"/g, '""').replace(/\[[^\]]*\]/g, '');
  const groupingLabels: string[] = [];
  const withoutGrouping = text.replace(/\b(?:by|without)\s*\(([^)]*)\)/g, (_, list: string) => {
    groupingLabels.push(
      ...list
        .split(',')
        .map((label) => label.trim())
        .filter(Boolean),
    );
    return ' ';
  });
  const series: SeriesReference[] = [];
  const token = /([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\{[^}]*\})?(\s*\()?/g;
  for (const match of withoutGrouping.matchAll(token)) {
    const [, name, selector, call] = match;
    const before = withoutGrouping[match.index - 1] ?? '';
    // A function call, a keyword, a number's exponent or a label inside a selector: not a series.
    if (call || KEYWORDS.has(name!) || /[0-9.]/.test(before)) continue;
    const labels = [...(selector ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)/g)].map(
      (m) => m[1]!,
    );
    series.push({ name: name!, labels });
  }
  return { series, groupingLabels };
}
