// canvas.mjs -- what the canvas-drawn views (views/tasks.mjs,
// views/warps.mjs) share: a canvas sized for the screen's pixel density;
// and what the time charts (charts/timeline, charts/queues.mjs) draw alike.

// Sizes `canvas` to width x height CSS pixels at window.devicePixelRatio,
// clears it to the theme's background (th: colors.mjs chartTheme()) and sets
// `font` with a middle baseline; returns its 2D context, drawing in CSS
// pixels.
export function canvasContext(canvas, width, height, th, font) {
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.round(width * dpr);
  canvas.height = Math.round(height * dpr);
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  const g = canvas.getContext('2d');
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.fillStyle = th.bg;
  g.fillRect(0, 0, width, height);
  g.font = font;
  g.textBaseline = 'middle';
  return g;
}

// The picked time's dashed line at pixel x across the chart area a
// ({top, bottom}), in color; the dash is reset after.
export function timeMark(ctx, x, a, color) {
  ctx.strokeStyle = color;
  ctx.setLineDash([5, 4]);
  ctx.beginPath();
  ctx.moveTo(x, a.top);
  ctx.lineTo(x, a.bottom);
  ctx.stroke();
  ctx.setLineDash([]);
}
