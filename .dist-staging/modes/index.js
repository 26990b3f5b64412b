// Written by the build (buildtools/mode_registry.py) from engine/modes/; edit a mode there.
// Each mode's web module (modes/<id>.js), given its id, its tab and its whole declaration.
import { MODES as DECLARED } from "./registry.js";
import mode0 from "./paths.js";
import mode1 from "./naive.js";
import mode2 from "./pushpull.js";
import mode3 from "./forward.js";
import mode4 from "./again.js";
import mode5 from "./descent.js";

const MODULES = [mode0, mode1, mode2, mode3, mode4, mode5];
export const MODES = DECLARED.map((declared, i) =>
  Object.assign(MODULES[i], { id: declared.id, tab: declared.tab, declared }));
