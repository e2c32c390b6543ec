import { type CliCommand, CliError } from '../cli-io.js';

// Placeholder until the command lands; replaced by its issue's work.
export const validateCommand: CliCommand = async () => {
  throw new CliError('the "validate" command is not built yet', 2);
};
