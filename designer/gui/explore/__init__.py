"""The Explore area's views (map, sweep, Pareto, A/B, conditions); :class:`designer.gui.explore_panel.ExplorePanel`
puts them together."""
