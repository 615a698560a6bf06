/**
 * A rule option that is a regular expression (case-insensitive), compiled once per options object: ESLint hands every
 * file under one config the same options object, and compiling per file and rule was a measurable share of the time
 * spent on files that serve no call. A bad pattern is one clear line naming the rule and the option.
 */
const compiled = new WeakMap<object, Map<string, RegExp>>();

export function optionRegExp(options: object, rule: string, option: string, source: string): RegExp {
  let perOptions = compiled.get(options);
  if (!perOptions) {
    perOptions = new Map();
    compiled.set(options, perOptions);
  }
  let re = perOptions.get(option);
  if (!re) {
    try {
      re = new RegExp(source, 'i');
    } catch {
      throw new Error(`mcp-stateless/${rule}: ${option} is not a valid regular expression: ${source}`);
    }
    perOptions.set(option, re);
  }
  return re;
}
