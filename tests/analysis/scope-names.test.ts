// The names under which real servers pass a directory or a tenant for the call (src/vocabulary.ts): what
// no-shared-scope-fallback treats as a scope besides the configured scope arguments, and look-alikes it must not.
import { describe, expect, it } from 'vitest';
import { DIRECTORY_ARGUMENT_PATTERN, SCOPE_LIKE_PATTERN, TENANT_ARGUMENT_PATTERN } from '../../src/vocabulary.js';

describe('scope-like argument names', () => {
  it('directory-like names', () => {
    for (const name of ['workFolder', 'working_directory', 'workDir', 'outputDir', 'output_path', 'outputPath', 'downloadsDir', 'saveTo', 'save_path', 'cwd', 'dir', 'directoryPath', 'folder', 'output', 'outFile', 'destination', 'repoPath', 'screenshotDir', 'projectRoot', 'tmpDir']) {
      expect(DIRECTORY_ARGUMENT_PATTERN.test(name), name).toBe(true);
    }
  });

  it('tenant-like names', () => {
    for (const name of ['tenantId', 'tenant_id', 'tenant', 'orgId', 'organizationId', 'teamId', 'customer_id']) {
      expect(TENANT_ARGUMENT_PATTERN.test(name), name).toBe(true);
    }
  });

  it('look-alikes that are neither', () => {
    for (const name of ['path', 'file', 'filename', 'format', 'name', 'namespace', 'userId', 'accountId', 'projectId', 'outputFormat', 'directoryListing', 'sessionId', 'url']) {
      expect(SCOPE_LIKE_PATTERN.test(name), name).toBe(false);
    }
  });
});
