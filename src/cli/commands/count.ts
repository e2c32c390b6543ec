import { type CliCommand, CliError } from '../cli-io.js';

// Placeholder until the command lands; replaced by its issue's work.
export const countCommand: CliCommand = async () => {
  throw new CliError('the "count" command is not built yet', 2);
};
