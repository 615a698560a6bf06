// The plugin's rules, by name. Each rule file is thin: metadata plus a visitor that asks the shared model.
import noImplicitGlobalShare from './no-implicit-global-share.js';
import requireMaxConcurrent from './require-max-concurrent.js';
import requireStatelessnessProbe from './require-statelessness-probe.js';

export const rules = {
  'no-implicit-global-share': noImplicitGlobalShare,
  'require-max-concurrent': requireMaxConcurrent,
  'require-statelessness-probe': requireStatelessnessProbe,
};
