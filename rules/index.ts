// The plugin's rules, by name. Each rule file is thin: metadata plus a visitor that asks the shared model.
import noCrossCallBinding from './no-cross-call-binding.js';
import noFirstCallerCache from './no-first-caller-cache.js';
import noModuleAccumulator from './no-module-accumulator.js';
import noProcessGlobalMutation from './no-process-global-mutation.js';
import noSessionKeyedState from './no-session-keyed-state.js';
import noSharedServerConnection from './no-shared-server-connection.js';
import noFixedPathIo from './no-fixed-path-io.js';
import noSharedScopeFallback from './no-shared-scope-fallback.js';
import noSharedScratchDir from './no-shared-scratch-dir.js';
import noUnguardedPathJoin from './no-unguarded-path-join.js';
import requireChildProcessIsolation from './require-child-process-isolation.js';
import requireTeardownTool from './require-teardown-tool.js';
import noImplicitGlobalShare from './no-implicit-global-share.js';
import requireMaxConcurrent from './require-max-concurrent.js';
import requireStatelessnessProbe from './require-statelessness-probe.js';

export const rules = {
  'no-cross-call-binding': noCrossCallBinding,
  'no-first-caller-cache': noFirstCallerCache,
  'no-module-accumulator': noModuleAccumulator,
  'no-process-global-mutation': noProcessGlobalMutation,
  'no-session-keyed-state': noSessionKeyedState,
  'no-shared-server-connection': noSharedServerConnection,
  'no-fixed-path-io': noFixedPathIo,
  'no-shared-scratch-dir': noSharedScratchDir,
  'no-unguarded-path-join': noUnguardedPathJoin,
  'require-child-process-isolation': requireChildProcessIsolation,
  'no-shared-scope-fallback': noSharedScopeFallback,
  'require-teardown-tool': requireTeardownTool,
  'no-implicit-global-share': noImplicitGlobalShare,
  'require-max-concurrent': requireMaxConcurrent,
  'require-statelessness-probe': requireStatelessnessProbe,
};
