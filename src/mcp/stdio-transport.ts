/**
 * The MCP server's stdio transport: one JSON-RPC message a line, with a cap on a line's size.
 * Hand-written, not the SDK's StdioServerTransport: that one buffers a whole line before looking
 * at it and, past its buffer's limit, closes itself without an answer or a log line (the client
 * then waits forever on a server that reads nothing more); it also drops a line that is not
 * JSON-RPC without answering. Here bytes go through the stream layer's LineSplitter, which never
 * holds more than the cap: an over-long line is discarded as it streams in, then answered with a
 * JSON-RPC error (id null: the id of a discarded request is unknown) and logged once; a line that
 * is not JSON gets -32700, one that is not a JSON-RPC message -32600; the next line is served.
 */
import type { Readable, Writable } from 'node:stream';

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';

import type { Logger } from '../log.js';
import { LineSplitter } from '../stream/index.js';
import { MAX_REQUEST_BYTES } from './limits.js';

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;

type Id = string | number | null;

/** The id of a parsed line when it has a usable one, so the client can match the error. */
function idOf(value: unknown): Id {
  const id = (value as { id?: unknown } | null)?.id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

export class LineCappedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly splitter: LineSplitter;
  private started = false;
  private closed = false;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly opts: { log?: Logger; maxLineBytes?: number } = {},
  ) {
    const maxLineBytes = opts.maxLineBytes ?? MAX_REQUEST_BYTES;
    this.splitter = new LineSplitter({
      maxLineBytes,
      onLine: (line) => this.handleLine(line),
      onOversized: (bytes) => {
        this.opts.log?.warn('MCP request discarded: over the size limit', {
          bytes,
          limit: maxLineBytes,
        });
        this.answerError(
          null,
          INVALID_REQUEST,
          `Invalid Request: a request of ${bytes} bytes is over the limit of ${maxLineBytes} bytes`,
        );
      },
    });
  }

  private readonly onData = (chunk: Buffer | string) => {
    this.splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  };
  private readonly onEnd = () => this.splitter.end();
  private readonly onInputError = (error: Error) => this.onerror?.(error);

  async start(): Promise<void> {
    if (this.started) throw new Error('the stdio transport is already started');
    this.started = true;
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('error', this.onInputError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(JSON.stringify(message));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('error', this.onInputError);
    this.onclose?.();
  }

  private write(json: string): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(`${json}\n`)) resolve();
      else this.output.once('drain', resolve);
    });
  }

  private answerError(id: Id, code: number, message: string): void {
    void this.write(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }));
  }

  private handleLine(raw: Buffer): void {
    const text = raw.toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      this.opts.log?.warn('MCP request discarded: not JSON', { bytes: raw.length });
      this.answerError(null, PARSE_ERROR, `Parse error: ${(err as Error).message}`);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      this.opts.log?.warn('MCP request discarded: not a JSON-RPC 2.0 message', {
        bytes: raw.length,
      });
      this.answerError(idOf(value), INVALID_REQUEST, 'Invalid Request: not a JSON-RPC 2.0 message');
      return;
    }
    this.onmessage?.(parsed.data);
  }
}
