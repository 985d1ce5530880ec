// preload.mjs -- the page's first script (async, in <head>): asks at once
// for every module the opened page's view needs (views.mjs), so main.mjs
// finds them compiled, and runs Chart.js as soon as it has arrived
// (chartlib.mjs), while the page's first requests are on their way.
import { matchRoute } from './router.mjs';
import { preloadView } from './views.mjs';
import { loadChart } from './chartlib.mjs';

preloadView(matchRoute(location.pathname, location.search).name);
loadChart().catch(() => {});   // (a view that needs it says so)
