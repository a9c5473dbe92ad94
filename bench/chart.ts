/** Line charts as PNG: Vega-Lite renders the SVG, resvg turns it into a PNG (no canvas, no browser). */
import { writeFile } from 'node:fs/promises';
import { Resvg } from '@resvg/resvg-js';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

export async function lineChart(
  file: string,
  title: string,
  rows: Array<{ x: number; y: number; series: string }>,
  axes: { x: string; y: string; logY?: boolean },
): Promise<void> {
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    width: 520,
    height: 320,
    background: 'white',
    data: { values: rows },
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'x', type: 'quantitative', title: axes.x },
      y: { field: 'y', type: 'quantitative', title: axes.y, ...(axes.logY ? { scale: { type: 'log' } } : {}) },
      color: { field: 'series', type: 'nominal', title: null },
    },
  };
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  await writeFile(
    file,
    new Resvg(svg, { background: 'white', fitTo: { mode: 'width', value: 1000 } }).render().asPng(),
  );
}
