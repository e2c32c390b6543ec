import { type CliCommand, CliError } from '../cli-io.js';

// Placeholder until the command lands; replaced by its issue's work.
export const compactCommand: CliCommand = async () => {
  throw new CliError('the "compact" command is not built yet', 2);
};
