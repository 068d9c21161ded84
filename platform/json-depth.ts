// How deeply a JSON text nests, read before it is parsed: JSON.parse copes with any depth, but the recursive walks
// after it (schema validation, JSON.stringify, the SDKs' own checks) overflow the stack on a few thousand levels.
// One linear scan of the brackets outside strings; what the service takes nests a few levels at most.

/** The deepest nesting of arrays and objects a request may send (bodies, /ws frames, MCP messages). */
export const MAX_JSON_DEPTH = 64;

/** Whether `text` opens more than `max` arrays or objects inside one another (its strings' brackets not counted). */
export function nestsDeeper(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: skip to its closing quote, over escapes.
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

/** The refusal of a text nested too deep, naming what was sent (`body`, `message`). */
export const tooDeep = (what: string) => `${what}: JSON nested deeper than ${MAX_JSON_DEPTH} levels`;
