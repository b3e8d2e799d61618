/**
 * `watchkeeper memories list|search|add|edit|delete|pin|unpin|deactivate|reactivate|archive|
 * restore|share|unshare|history|merge`.
 */
import { unknownSubcommand } from '../args.js';
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
      throw unknownSubcommand('memories', sub, [
        'list',
        'search',
        'add',
        'edit',
        'delete',
        'pin',
        'unpin',
        'deactivate',
        'reactivate',
        'archive',
        'restore',
        'share',
        'unshare',
        'merge',
        'history',
      ]);
  }
}
