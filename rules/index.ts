// The plugin's rules, by name. Each rule file is thin: metadata plus a visitor that asks the shared model.
import noCrossCallBinding from './no-cross-call-binding.js';
import noFirstCallerCache from './no-first-caller-cache.js';
import noModuleAccumulator from './no-module-accumulator.js';
import noProcessGlobalMutation from './no-process-global-mutation.js';
import noSessionKeyedState from './no-session-keyed-state.js';
import noSharedServerConnection from './no-shared-server-connection.js';
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
  'no-implicit-global-share': noImplicitGlobalShare,
  'require-max-concurrent': requireMaxConcurrent,
  'require-statelessness-probe': requireStatelessnessProbe,
};
