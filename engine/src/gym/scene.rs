//! A Gymnasium state as a picture: the shapes each environment's file draws from the observation
//! as numbers ([`super::Gymnasium::draw`]), in the canvas's pixels. The page paints them on a
//! 2D canvas; here they stay plain values, so a test can read what a state looks like.

/// The canvas's size in pixels.
pub const WIDTH: f64 = 480.0;
pub const HEIGHT: f64 = 240.0;
/// The agent (the walker, the taxi's passenger, the joints).
pub const AGENT: &str = "#1a73e8";
pub const INK: &str = "#202124";
pub const GROUND: &str = "#5f6368";
pub const GOAL: &str = "#188038";
/// The pole and the second link.
pub const POLE: &str = "#e37400";
const GRID_LINES: &str = "#dadce0";

/// A point in pixels, from the top left.
pub type Point = (f64, f64);

#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A polyline through `points`.
    Line {
        points: Vec<Point>,
        width: f64,
        colour: &'static str,
    },
    Disc {
        centre: Point,
        radius: f64,
        colour: &'static str,
    },
    /// A rectangle from its top left corner, filled or outlined `width` pixels wide.
    Rect {
        corner: Point,
        size: (f64, f64),
        colour: &'static str,
        outline: Option<f64>,
    },
    /// Text centred on `at`.
    Text {
        text: String,
        at: Point,
        size: u32,
        colour: &'static str,
    },
}

/// The shapes of one picture, painted in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scene {
    pub shapes: Vec<Shape>,
}

impl Scene {
    pub fn line(&mut self, from: Point, to: Point, width: f64, colour: &'static str) {
        self.polyline(vec![from, to], width, colour);
    }

    pub fn polyline(&mut self, points: Vec<Point>, width: f64, colour: &'static str) {
        self.shapes.push(Shape::Line { points, width, colour });
    }

    pub fn disc(&mut self, centre: Point, radius: f64, colour: &'static str) {
        self.shapes.push(Shape::Disc { centre, radius, colour });
    }

    pub fn fill(&mut self, corner: Point, size: (f64, f64), colour: &'static str) {
        self.shapes.push(Shape::Rect { corner, size, colour, outline: None });
    }

    pub fn outline(&mut self, corner: Point, size: (f64, f64), width: f64, colour: &'static str) {
        self.shapes.push(Shape::Rect { corner, size, colour, outline: Some(width) });
    }

    pub fn text(&mut self, text: impl Into<String>, at: Point, size: u32, colour: &'static str) {
        self.shapes.push(Shape::Text { text: text.into(), at, size, colour });
    }

    /// A grid of `rows` × `columns` square cells centred on the canvas; the centre of each cell.
    pub fn grid(&mut self, rows: usize, columns: usize) -> Grid {
        let cell = (WIDTH / columns as f64).min((HEIGHT - 20.0) / rows as f64);
        let origin = ((WIDTH - cell * columns as f64) / 2.0, (HEIGHT - cell * rows as f64) / 2.0);
        let (right, bottom) = (origin.0 + cell * columns as f64, origin.1 + cell * rows as f64);
        for row in 0..=rows {
            let y = origin.1 + cell * row as f64;
            self.line((origin.0, y), (right, y), 1.0, GRID_LINES);
        }
        for column in 0..=columns {
            let x = origin.0 + cell * column as f64;
            self.line((x, origin.1), (x, bottom), 1.0, GRID_LINES);
        }
        Grid { origin, cell }
    }
}

/// Where a grid of square cells lies on the canvas.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    /// The top left corner.
    pub origin: Point,
    /// A cell's side.
    pub cell: f64,
}

impl Grid {
    pub fn centre(&self, row: usize, column: usize) -> Point {
        (self.origin.0 + self.cell * (column as f64 + 0.5), self.origin.1 + self.cell * (row as f64 + 0.5))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grid_is_centred_and_its_cells_are_square() {
        // 4 × 12 cells: 480 / 12 = 40 wide but (240 − 20) / 4 = 55 high, so 40-pixel cells, 80
        // pixels of margin above and below.
        let mut scene = Scene::default();
        let grid = scene.grid(4, 12);
        assert_eq!(grid, Grid { origin: (0.0, 40.0), cell: 40.0 });
        assert_eq!(grid.centre(3, 0), (20.0, 180.0));
        assert_eq!(scene.shapes.len(), 5 + 13);
    }
}
