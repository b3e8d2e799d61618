/**
 * `watchkeeper memories list|search|add|edit|delete|pin|unpin|deactivate|reactivate|archive|
 * restore|share|unshare|history|merge`.
 */
import { CATEGORIES } from '../../memory/index.js';
import { usageError } from '../args.js';
import type { CliIo } from '../io.js';
import { addCommand } from './memories/add.js';
import { editCommand, mergeCommand } from './memories/edit.js';
import { historyCommand } from './memories/history.js';
import {
  archiveCommand,
  deactivateCommand,
  deleteCommand,
  pinCommand,
  reactivateCommand,
  restoreCommand,
} from './memories/lifecycle.js';
import { listCommand } from './memories/list.js';
import { shareCommand } from './memories/share.js';
import { searchCommand } from './search.js';

export const MEMORIES_USAGE = `watchkeeper memories list [--service S] [--category C] [--instance NAME|fleet] [--all|--inactive] [--limit N] [--json]
watchkeeper memories add --category C [--service S] [--confidence X] [--pin] [--json] TEXT
watchkeeper memories edit ID [--text TEXT] [--confidence X] [--json]
watchkeeper memories delete ID...
watchkeeper memories pin|unpin ID
watchkeeper memories deactivate ID...
watchkeeper memories reactivate ID [--confidence X]
watchkeeper memories archive ID [--reason TEXT]
watchkeeper memories restore ID
watchkeeper memories share|unshare ID [--json]
  share: every instance of the fleet sees it; unshare: it belongs to this instance again.
watchkeeper memories history ID [--json]
watchkeeper memories merge ID ID... [--text TEXT] [--confidence X] [--json]
  Merge into the first ID: it keeps the best confidence (or X), the highest importance, the
  others' provenance in its history; the others are archived, linked to it, their history kept.
  Categories: ${CATEGORIES.join(', ')}. Service "general" (or none) means a general memory.`;

export async function memoriesCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  // Parse and validate everything before the database is opened: bad input changes nothing.
  switch (sub) {
    case 'search':
      return searchCommand(rest, io);
    case 'list':
      return listCommand(rest, io);
    case 'add':
      return addCommand(rest, io);
    case 'edit':
      return editCommand(rest, io);
    case 'delete':
      return deleteCommand(rest, io);
    case 'pin':
    case 'unpin':
      return pinCommand(sub, rest, io);
    case 'deactivate':
      return deactivateCommand(rest, io);
    case 'reactivate':
      return reactivateCommand(rest, io);
    case 'archive':
      return archiveCommand(rest, io);
    case 'restore':
      return restoreCommand(rest, io);
    case 'share':
    case 'unshare':
      return shareCommand(sub, rest, io);
    case 'merge':
      return mergeCommand(rest, io);
    case 'history':
      return historyCommand(rest, io);
    default:
      throw usageError(`unknown memories command "${sub ?? ''}"; usage:\n${MEMORIES_USAGE}`);
  }
}
