// The plugin's rules, by name. Each rule file is thin: metadata plus a visitor that asks the shared model.
export const rules = {};
