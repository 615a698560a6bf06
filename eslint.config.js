// The repository's own lint: eslint-plugin-eslint-plugin's `recommended` on the rule files (`npm run lint:rules`, and
// tests/configs.test.ts). Users never load this file: the package ships dist/ and its configs, not this.
import eslintPlugin from 'eslint-plugin-eslint-plugin';
import tseslint from 'typescript-eslint';

export default [
  { files: ['rules/**/*.ts'], languageOptions: { parser: tseslint.parser } },
  { ...eslintPlugin.configs.recommended, files: ['rules/**/*.ts'] },
];
