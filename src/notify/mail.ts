/**
 * SMTP e-mail through nodemailer: one message per notification, plain text. nodemailer is loaded
 * on the first e-mail, not by every command that can record a notification.
 */
import type { Endpoint } from './targets.js';
import type { OutgoingMessage } from './webhooks.js';

type MailEndpoint = Extract<Endpoint, { kind: 'email' }>;

export async function sendMail(
  e: MailEndpoint,
  m: OutgoingMessage,
  o: { timeoutMs: number },
): Promise<void> {
  const { default: nodemailer } = await import('nodemailer');
  const transport = nodemailer.createTransport({
    host: e.host,
    port: e.port,
    secure: e.secure,
    requireTLS: e.requireTLS,
    ...(e.auth ? { auth: { user: e.auth.user, pass: e.auth.pass } } : {}),
    connectionTimeout: o.timeoutMs,
    greetingTimeout: o.timeoutMs,
    socketTimeout: o.timeoutMs,
    // nodemailer's own logger is off: its debug output would quote the credentials.
    logger: false,
    debug: false,
  });
  try {
    await transport.sendMail({
      from: e.from,
      to: e.to,
      subject: m.title,
      text: m.body,
      headers: { 'X-Watchkeeper-Level': m.level },
    });
  } finally {
    transport.close();
  }
}
