/** The JSON log lines a process wrote (src/log.ts), parsed; other lines (progress, usage) skipped. */
export interface LogLine {
  level: string;
  time: string;
  msg: string;
  [field: string]: unknown;
}

export function logLines(text: string): LogLine[] {
  return text.split('\n').flatMap((line) => {
    // A log line starts with its level; output of another kind written without a line end (a
    // library's message from a worker thread) may sit before it on the same line.
    const start = line.indexOf('{"level":');
    if (start < 0) return [];
    try {
      return [JSON.parse(line.slice(start)) as LogLine];
    } catch {
      return []; // a line still being written
    }
  });
}

/** True when a line has this message (a string is matched whole, a RegExp anywhere) and fields. */
export function logged(
  text: string,
  msg: string | RegExp,
  fields: Record<string, unknown> = {},
): boolean {
  return logLines(text).some(
    (l) =>
      (typeof msg === 'string' ? l.msg === msg : msg.test(l.msg)) &&
      Object.entries(fields).every(([k, v]) => l[k] === v),
  );
}
