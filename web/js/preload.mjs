// preload.mjs -- the page's first script (async, in <head>): asks at once
// for every module the opened page's view needs (views.mjs), so main.mjs
// finds them compiled, and for the view's first answers beside them (api.mjs
// askAhead), and runs Chart.js as soon as it has arrived (chartlib.mjs).
import { matchRoute } from './router.mjs';
import { VIEWS, preloadView } from './views.mjs';
import { loadChart } from './chartlib.mjs';
import { api, askAhead } from './api.mjs';

const route = matchRoute(location.pathname, location.search);
preloadView(route.name);
const early = VIEWS[route.name]?.early;
if (early) askAhead(() => early(route, api, askAhead));
loadChart().catch(() => {});   // (a view that needs it says so)
