// charts/timeline.mjs -- the block timeline (TX2 paper Fig. 3): its parts
// are in charts/timeline/ (index.mjs wires layout, state, draw and tip);
// views import it from here.

import { createTimeline } from './timeline/index.mjs';

export { createTimeline };
