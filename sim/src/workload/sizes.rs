//! Message-size distributions for background and latency workloads.

use super::Rng;
use crate::config::ConfigError;
use serde::{Deserialize, Serialize};

/// A distribution of flow sizes, bytes. In scenario files: `sizes = { kind = "fixed", bytes = 65536 }`,
/// `{ kind = "uniform", min = 4096, max = 65536 }` or `{ kind = "cdf", points = [[4096, 50], [65536, 100]] }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum SizeDist {
    /// Always `bytes`.
    Fixed {
        /// Size, bytes (>= 1).
        bytes: u64,
    },
    /// Uniform over `min..=max`.
    Uniform {
        /// Smallest size, bytes (>= 1).
        min: u64,
        /// Largest size, bytes (>= `min`).
        max: u64,
    },
    /// An empirical CDF: `points` are `[bytes, cumulative percent]` with both columns non-decreasing and the last
    /// percent 100. A sample draws `u` uniformly in `[0, 100)`, takes the first point whose percent exceeds `u`
    /// and interpolates linearly in bytes between it and the previous point (sizes below the first point's
    /// percent are the first point's size).
    Cdf {
        /// `[bytes, percent]` pairs.
        points: Vec<(u64, f64)>,
    },
}

impl SizeDist {
    /// Rejects empty, unsorted or zero-byte distributions; `field` is the scenario path of the table
    /// (e.g. `background.0.sizes`).
    pub fn validate(&self, field: &str) -> Result<(), ConfigError> {
        let err = |f: &str, reason: &str| {
            Err(ConfigError {
                field: format!("{field}.{f}"),
                reason: reason.to_string(),
            })
        };
        match self {
            SizeDist::Fixed { bytes } if *bytes == 0 => err("bytes", "must be >= 1"),
            SizeDist::Uniform { min, .. } if *min == 0 => err("min", "must be >= 1"),
            SizeDist::Uniform { min, max } if max < min => err("max", "must be >= min"),
            SizeDist::Cdf { points } => {
                if points.is_empty() {
                    return err("points", "needs at least one [bytes, percent] point");
                }
                let mut prev = (1u64, 0.0f64);
                for (i, &(b, p)) in points.iter().enumerate() {
                    if b == 0 {
                        return err(&format!("points.{i}"), "bytes must be >= 1");
                    }
                    if !(0.0..=100.0).contains(&p) || p.is_nan() {
                        return err(&format!("points.{i}"), "percent must be within 0..=100");
                    }
                    if b < prev.0 || p < prev.1 {
                        return err(
                            &format!("points.{i}"),
                            "points must be non-decreasing in bytes and percent",
                        );
                    }
                    prev = (b, p);
                }
                if prev.1 != 100.0 {
                    return err("points", "the last point's percent must be 100");
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Mean size, bytes (exact for `fixed` and `uniform`, piecewise-linear for `cdf`).
    pub fn mean(&self) -> f64 {
        match self {
            SizeDist::Fixed { bytes } => *bytes as f64,
            SizeDist::Uniform { min, max } => (*min as f64 + *max as f64) / 2.0,
            SizeDist::Cdf { points } => {
                let mut mean = 0.0;
                let mut prev: Option<(u64, f64)> = None;
                for &(b, p) in points {
                    match prev {
                        None => mean += b as f64 * p / 100.0,
                        Some((pb, pp)) => mean += (pb as f64 + b as f64) / 2.0 * (p - pp) / 100.0,
                    }
                    prev = Some((b, p));
                }
                mean
            }
        }
    }

    /// Draws one size (>= 1).
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        let v = match self {
            SizeDist::Fixed { bytes } => *bytes,
            SizeDist::Uniform { min, max } => {
                let span = max.saturating_sub(*min).saturating_add(1);
                min + rng.below(span)
            }
            SizeDist::Cdf { points } => {
                let u = rng.unit() * 100.0;
                let mut prev: Option<(u64, f64)> = None;
                let mut out = points.last().map_or(1, |p| p.0);
                for &(b, p) in points {
                    if p > u {
                        out = match prev {
                            None => b,
                            Some((pb, pp)) => {
                                let frac = if p > pp { (u - pp) / (p - pp) } else { 1.0 };
                                pb + ((b - pb) as f64 * frac).round() as u64
                            }
                        };
                        break;
                    }
                    prev = Some((b, p));
                }
                out
            }
        };
        v.max(1)
    }
}
