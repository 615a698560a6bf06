/** The probe could not run (exit code 2). The message is the one-line reason. */
export class ProbeError extends Error {
  override name = 'ProbeError';
}
